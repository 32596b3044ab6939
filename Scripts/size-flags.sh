# shellcheck shell=bash
# The compiler flags Scripts/build-release.sh and Scripts/build-lib.sh build with, so that the linker's --gc-sections
# can drop what nothing reaches (sourced; sets the array size_flags, for `swift build`):
#   -function-sections            each function in a section of its own (without it, all of a file's code is one
#                                 section, kept whole when one function in it is used)
#   -internalize-at-link          public symbols not kept alive for callers outside the link: the program (or the
#                                 library, which exports only the dl_ functions) is the whole link unit
#   -conditional-runtime-records  a type's conformance and metadata records kept only when the type itself is
#   -Osize                        optimised for size
# What each saves is in the scripts that use them.
size_flags=(-Xswiftc -Osize)
for flag in -function-sections -internalize-at-link -conditional-runtime-records; do
    size_flags+=(-Xswiftc -Xfrontend -Xswiftc "$flag")
done
