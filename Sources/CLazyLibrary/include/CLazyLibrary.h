#ifndef CLAZYLIBRARY_H
#define CLAZYLIBRARY_H
// A shared library loaded on first use instead of at start-up.
//
// libcurl and libarchive bring 37 of the program's 44 shared libraries with them (TLS, Kerberos, LDAP, ICU, XML,
// every compressor). Bound by the loader at start, they cost most of the start-up of a command that never downloads
// or reads an archive (`--version`, `status`, `pause`). The forwarders in CCurl and CArchive load their library
// here the first time one of its functions is called, and find each function once.

/// One library, loaded at most once per process. Define one per library with a constant initializer:
/// `static struct lazy_library curl = { "libcurl.so.4", "libcurl4" };`
struct lazy_library {
    /// The soname to load (the one the program was built against).
    const char *soname;
    /// The Debian package that provides it, named in the error when it is missing.
    const char *package;
    /// The handle from dlopen, once loaded. Only this file's functions touch it.
    void *handle;
};

/// The address of `name` in `library`, loading the library on first use. A library or a function that cannot be
/// found ends the process with status 127 (as the dynamic loader does for a missing library) after saying which,
/// and which package provides it: nothing can go on without it.
void *lazy_library_symbol(struct lazy_library *library, const char *name);

/// `lazy_library_symbol` found once: the first call stores the address in `*slot` (a forwarder's own static),
/// later calls read it from there.
void *lazy_library_function(struct lazy_library *library, void **slot, const char *name);

#endif
