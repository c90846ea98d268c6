// ICU's data for the shipping build, trimmed to what iapcontent uses (tools/lib/icu-trim.py: 5.6 MB instead of 34).
//
// The static Foundation links ICU with all of its data as one symbol, `icudt<version>_dat`, in its own archive
// member. This object is linked before the archives, so when tools/release-build writes TrimmedICUData.inc (the
// symbol's definition, an .incbin of the trimmed package) beside this file in its copy of the sources, the linker
// never pulls the full data in. Without that file (debug builds, `swift build`) this assembles to nothing and Foundation's own data
// is used.
#if __has_include("TrimmedICUData.inc")
#include "TrimmedICUData.inc"
#endif
    .section .note.GNU-stack,"",@progbits
