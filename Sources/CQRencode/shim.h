#ifndef DEVICELOGIN_CQRENCODE_SHIM_H
#define DEVICELOGIN_CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
