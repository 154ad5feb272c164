package dev.crashlab.unpack;

/**
 * Bounds what unpacking one bundle may cost, so that a hostile upload cannot fill the disk or the heap.
 *
 * @param maxExpandedBytes the most bytes that all files of a bundle may expand to, summed over every
 *                         {@link BundleUnpacker#add add} call (nested archives count as well as their contents)
 * @param maxFiles         the most files a bundle may hold
 * @param maxDepth         the deepest archive nesting allowed; 1 means the uploaded archive itself
 * @param maxRatio         the largest expanded-to-compressed ratio one entry may reach once past the grace
 * @param ratioGraceBytes  the bytes an entry may expand to before its ratio is checked, so that small, very
 *                         compressible files (a log of repeated lines) are not mistaken for bombs
 */
public record UnpackLimits(long maxExpandedBytes, int maxFiles, int maxDepth, int maxRatio, long ratioGraceBytes) {

    /** Checks that every limit is usable. */
    public UnpackLimits {
        if (maxExpandedBytes <= 0) {
            throw new IllegalArgumentException("maxExpandedBytes must be positive, was " + maxExpandedBytes);
        }
        if (maxFiles <= 0) {
            throw new IllegalArgumentException("maxFiles must be positive, was " + maxFiles);
        }
        if (maxDepth <= 0) {
            throw new IllegalArgumentException("maxDepth must be at least 1 (the uploaded archive), was " + maxDepth);
        }
        if (maxRatio <= 0) {
            throw new IllegalArgumentException("maxRatio must be positive, was " + maxRatio);
        }
        if (ratioGraceBytes < 0) {
            throw new IllegalArgumentException("ratioGraceBytes must not be negative, was " + ratioGraceBytes);
        }
    }

    /** Returns the limits used unless configured otherwise: 4 GiB, 10,000 files, depth 3, ratio 100:1 after 16 MiB. */
    public static UnpackLimits defaults() {
        return new UnpackLimits(4L << 30, 10_000, 3, 100, 16L << 20);
    }
}
