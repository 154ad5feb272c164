package dev.crashlab.unpack;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.archivers.tar.TarUtils;

/**
 * The archive formats {@link BundleUnpacker} expands, told apart by their first bytes (never by a file's name), with
 * the tar header checks the tar reader shares.
 */
enum ArchiveFormat {
    /** Not an archive: staged as one file. */
    NONE,
    /** A zip archive ({@link ZipReader}). */
    ZIP,
    /** A tar archive ({@link TarReader}). */
    TAR,
    /** A gzip file: a compressed tar or one compressed file ({@link GzipReader}). */
    GZIP;

    /** Size of a tar header record. */
    static final int TAR_BLOCK = 512;

    static ArchiveFormat sniff(Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(TAR_BLOCK);
        }
        if (head.length >= 4 && head[0] == 'P' && head[1] == 'K'
                && ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6))) {
            return ZIP;
        }
        // Method 8 (deflate) and no reserved flag bits: two magic bytes alone match too much binary data.
        if (head.length >= 3 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b && head[2] == 8
                && (head.length < 4 || (head[3] & 0xe0) == 0)) {
            return GZIP;
        }
        return looksLikeTar(head) ? TAR : NONE;
    }

    static boolean looksLikeTar(byte[] head) {
        if (head.length < TAR_BLOCK || isAllZero(head)) {
            return false;
        }
        boolean ustar = head[257] == 'u' && head[258] == 's' && head[259] == 't' && head[260] == 'a' && head[261] == 'r';
        return ustar || tarChecksumMatches(head);
    }

    /**
     * Tells whether a 512-byte block carries a valid tar header checksum, accepting the signed sums of old tars.
     *
     * <p>NOTE: {@link TarUtils#verifyCheckSum} throws on a field that is not octal, which is what most
     * non-tar data holds there; this returns false instead.
     */
    static boolean tarChecksumMatches(byte[] block) {
        int i = 148;
        int end = 156;
        while (i < end && (block[i] == ' ' || block[i] == 0)) {
            i++;
        }
        long stored = 0;
        int digits = 0;
        for (; i < end && block[i] >= '0' && block[i] <= '7'; i++, digits++) {
            stored = stored * 8 + block[i] - '0';
        }
        for (; i < end; i++) {
            if (block[i] != ' ' && block[i] != 0) {
                return false;
            }
        }
        long unsigned = 0;
        long signed = 0;
        for (int j = 0; j < TAR_BLOCK; j++) {
            byte b = j >= 148 && j < end ? (byte) ' ' : block[j];
            unsigned += b & 0xff;
            signed += b;
        }
        return digits > 0 && (stored == unsigned || stored == signed);
    }

    static boolean isAllZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
