#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
// libzstd (Debian `libzstd-dev`): its streaming compressor and decompressor, and the dictionary trainer (zdict.h).
#include <zstd.h>
#include <zdict.h>
#endif
