#ifndef CARCHIVE_H
#define CARCHIVE_H
// libarchive, as Swift imports it. The functions are defined in ArchiveForwarders.c, which loads libarchive.so.13
// on the first call (CLazyLibrary.h says why): the program does not link libarchive.
#include <archive.h>
#include <archive_entry.h>
#endif
