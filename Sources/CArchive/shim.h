#ifndef CARCHIVE_SHIM_H
#define CARCHIVE_SHIM_H
// libarchive's headers import directly; this shim only gathers them under one module.
#include <archive.h>
#include <archive_entry.h>
#endif
