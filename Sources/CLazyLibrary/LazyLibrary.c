#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static void *lazy_library_handle(struct lazy_library *library) {
    void *handle = __atomic_load_n(&library->handle, __ATOMIC_ACQUIRE);
    if (handle != NULL) return handle;
    // Two threads may both get here: dlopen of a loaded library returns the same handle (counted), so the
    // second store writes the same value.
    handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "iapcontent: cannot load %s: %s\n(install the %s package: apt-get install %s)\n",
                library->soname, dlerror(), library->package, library->package);
        _exit(127);
    }
    __atomic_store_n(&library->handle, handle, __ATOMIC_RELEASE);
    return handle;
}

void *lazy_library_symbol(struct lazy_library *library, const char *name) {
    void *handle = lazy_library_handle(library);
    dlerror();
    void *symbol = dlsym(handle, name);
    if (symbol == NULL) {
        const char *why = dlerror();
        fprintf(stderr, "iapcontent: %s has no %s (%s): install a newer %s\n", library->soname, name,
                why != NULL ? why : "null symbol", library->package);
        _exit(127);
    }
    return symbol;
}

void *lazy_library_function(struct lazy_library *library, void **slot, const char *name) {
    void *found = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = lazy_library_symbol(library, name);
        __atomic_store_n(slot, found, __ATOMIC_RELEASE);
    }
    return found;
}
