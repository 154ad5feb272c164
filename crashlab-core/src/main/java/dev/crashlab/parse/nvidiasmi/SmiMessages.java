package dev.crashlab.parse.nvidiasmi;

import dev.crashlab.fact.GpuLost;
import dev.crashlab.fact.SourceRef;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Recognises nvidia-smi's messages about a lost GPU or an unreachable driver, wherever they appear. */
final class SmiMessages {

    // "GPU0000:07:00.0" (no space) and 3-digit domains occur in real pastes, so the bus id is loose
    private static final Pattern DEVICE_HANDLE = Pattern.compile(
            "Unable to determine the device handle for GPU\\s*([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f])\\s*:?\\s*(.*)");

    private SmiMessages() {}

    /** Returns the lost-GPU fact a line states, or null. */
    static GpuLost lost(String line, SourceRef at) {
        if (line.length() > 2000) {
            return null;
        }
        Matcher m = DEVICE_HANDLE.matcher(line);
        if (m.find()) {
            return new GpuLost(m.group(1), line.substring(m.start()).trim(), List.of(at));
        }
        String l = line.toLowerCase(Locale.ROOT);
        if (l.contains("nvidia-smi has failed because it couldn't communicate with the nvidia driver")
                || l.contains("no devices were found")
                || (l.contains("gpu is lost") && !l.contains(" : "))
                || l.contains("unable to determine the device handle")) {
            return new GpuLost(null, line.trim(), List.of(at));
        }
        return null;
    }
}
