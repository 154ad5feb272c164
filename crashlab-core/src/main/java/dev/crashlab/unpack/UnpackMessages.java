package dev.crashlab.unpack;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.util.Locale;

/** Words the unpacker's refusals share: names shown safely, sizes in readable units, and the common rejections. */
final class UnpackMessages {

    private UnpackMessages() {}

    /** Returns a name fit to show in a message: quoted, without control characters, cut to a readable length. */
    static String quote(String name) {
        if (name == null) {
            return "`(unnamed)`";
        }
        StringBuilder shown = new StringBuilder("`");
        int i = 0;
        while (i < name.length() && shown.length() <= 200) {
            int cp = name.codePointAt(i);
            // Shown as '?', so that a message cannot carry a terminal escape or reorder its own text.
            shown.appendCodePoint(EntryNames.characterProblem(Character.toString(cp)) == null ? cp : '?');
            i += Character.charCount(cp);
        }
        return shown.append(i < name.length() ? "…`" : "`").toString();
    }

    static BundleRejectedException link(String raw, String label, String what, String target) {
        return new BundleRejectedException(Kind.LINK, "archive entry " + quote(raw) + " in " + quote(label) + " is " + what
                + (target == null || target.isEmpty() ? "" : " (to " + quote(target) + ")")
                + ": refused; CrashLab unpacks only regular files, so archive the files themselves (tar -h, zip without -y)");
    }

    static BundleRejectedException special(String raw, String label, String what) {
        return new BundleRejectedException(Kind.SPECIAL_FILE, "archive entry " + quote(raw) + " in " + quote(label)
                + " is " + what + ": refused; CrashLab unpacks only regular files");
    }

    static BundleRejectedException corrupt(String label, String detail, Throwable cause) {
        return new BundleRejectedException(Kind.CORRUPT, quote(label) + " is truncated or corrupt (" + detail + ")", cause);
    }

    static String after(String lastEntry) {
        return lastEntry == null ? "before the first entry" : "after entry " + quote(lastEntry);
    }

    static String humanBytes(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20)).replace(".0 ", " ");
        }
        if (bytes >= 1L << 10) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / (double) (1L << 10)).replace(".0 ", " ");
        }
        return bytes + " bytes";
    }
}
