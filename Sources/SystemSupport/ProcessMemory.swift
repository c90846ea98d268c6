internal import CLinuxSystem

/// How the process's heap gives memory back, for content of many files.
///
/// **Why.** glibc's malloc gives each thread that allocates its own arena (up to eight per core). A download plans
/// on one thread (a hundred thousand file records, decoded and checked), then transfers and installs on others:
/// what the planning thread freed stays resident in its arena while the others grow theirs. Measured on 100 000
/// files (docs/PERFORMANCE.md): 92.7 MB peak RSS with the default arenas, 76.2 MB with one.
package enum ProcessMemory {
    /// Limits the process to one malloc arena, so memory a thread frees serves the next allocation of any thread.
    /// For a program's start (the CLI and the daemon own their process); a library never changes this policy for
    /// the program that embeds it. The pipeline's hot paths allocate little (fixed buffers handed between
    /// threads), so they do not contend for the one arena.
    package static func shareOneArena() {
        _ = CLinuxSystem_limitMallocArenas(1)
    }

    /// Gives every arena's free pages back to the kernel: after a phase that built large temporary structures
    /// (a plan over a hundred thousand files), so the next phase's peak does not stand on the first one's.
    package static func returnFreePages() {
        _ = CLinuxSystem_trimMalloc()
    }
}
