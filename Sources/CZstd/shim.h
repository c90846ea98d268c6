#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
// libzstd's streaming compressor (Debian `libzstd-dev`); this shim only gathers it under one module.
#include <zstd.h>
#endif
