# shellcheck shell=bash
# The compiler flags Scripts/build-release.sh and Scripts/build-lib.sh build with, so that the linker's --gc-sections
# can drop what nothing reaches (sourced; sets the array size_flags, for `swift build`):
#   -function-sections            each function in a section of its own (without it, all of a file's code is one
#                                 section, kept whole when one function in it is used)
#   -internalize-at-link          public symbols not kept alive for callers outside the link: the program (or the
#                                 library, which exports only the dl_ functions) is the whole link unit
#   -conditional-runtime-records  a type's conformance and metadata records kept only when the type itself is
#   -Osize                        optimised for size
#   -disable-concrete-type-metadata-mangled-name-accessors
#                                 a concrete generic type's metadata (Array<String>, a Result, a task's closure
#                                 context) comes from a direct accessor that hands over its witness tables, instead of
#                                 the runtime demangling its name on first use and scanning every conformance record
#                                 to check each generic requirement again. Measured at its introduction (callgrind,
#                                 static build): `token` 2.41 M -> 1.63 M instructions, `git-credential get` 2.54 M ->
#                                 1.69 M, `--help` 5.10 M -> 4.48 M, a login approved at once 34.0 M -> 30.2 M; the
#                                 stripped binary 15,871,464 -> 15,932,904 bytes (+0.4 %)
# What each saves is in the scripts that use them.
size_flags=(-Xswiftc -Osize)
for flag in -function-sections -internalize-at-link -conditional-runtime-records \
    -disable-concrete-type-metadata-mangled-name-accessors; do
    size_flags+=(-Xswiftc -Xfrontend -Xswiftc "$flag")
done
