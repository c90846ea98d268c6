import Glibc

/// `O_DIRECT` writes: whole, page-aligned blocks go from our buffer to the device without a copy
/// into the page cache.
///
/// Why: on this class of machine (ext4 on virtio) copying fresh data into the page cache
/// (`copy_folio_from_iter_atomic`) was the largest single cost of writing a 1 GiB archive or
/// extracting one, and a later `fsync` of a gigabyte of dirty pages stalls for seconds. Data that
/// must be durable anyway gains nothing from the cache. The caller still `fsync`s (the device's
/// own cache and the metadata need it). File systems without `O_DIRECT` (tmpfs, some FUSE) refuse
/// the flag or the write with `EINVAL`; callers then fall back to ordinary writes.
package enum DirectIO {
    /// Alignment of buffer addresses, file offsets and lengths: a page, enough for any block device.
    package static let alignment = 4096

    /// The `O_DIRECT` bit on this platform (Glibc's Swift module does not export it); `nil` where unknown.
    package static var flag: Int32? {
        #if arch(x86_64) || arch(i386)
        return 0o40000
        #elseif arch(arm64) || arch(arm)
        return 0o200000
        #else
        return nil
        #endif
    }

    /// Turns `O_DIRECT` on for `fileDescriptor`; false when the platform or file system refuses it.
    package static func enable(_ fileDescriptor: Int32) -> Bool {
        guard let flag else { return false }
        let flags = fcntl(fileDescriptor, F_GETFL)
        return flags >= 0 && fcntl(fileDescriptor, F_SETFL, flags | flag) == 0
    }

    /// Turns `O_DIRECT` off; true when it is off now.
    package static func disable(_ fileDescriptor: Int32) -> Bool {
        guard let flag else { return true }
        let flags = fcntl(fileDescriptor, F_GETFL)
        return flags >= 0 && fcntl(fileDescriptor, F_SETFL, flags & ~flag) == 0
    }

    /// True when `value` (an offset or a length) is a multiple of ``alignment``.
    package static func isAligned(_ value: Int64) -> Bool { value % Int64(alignment) == 0 }

    /// Writes all of `bytes` to `fileDescriptor` (retrying `EINTR` and short writes); returns 0 or
    /// the `errno` of the failed write. While `direct` is true the descriptor is in `O_DIRECT` mode;
    /// it leaves that mode (and sets `direct` to false) when the file system refuses it (`EINVAL`)
    /// or a short write leaves the offset unaligned, and finishes through the page cache.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to fileDescriptor: Int32, direct: inout Bool) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let count = write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EINVAL, direct, disable(fileDescriptor) {
                    direct = false
                    continue
                }
                return code
            }
            offset += count
            if offset < bytes.count, direct { direct = !disable(fileDescriptor) }
        }
        return 0
    }

    /// A page-aligned buffer of `byteCount` bytes rounded up to ``alignment``; the caller deallocates it.
    package static func allocateBuffer(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let rounded = (byteCount + alignment - 1) / alignment * alignment
        return .allocate(byteCount: rounded, alignment: alignment)
    }
}
