package dev.crashlab.crashes;

import java.util.Locale;

/**
 * One thing a crash can share with another: an exit code, a library that would not load, a faulting module, an Xid,
 * the likely cause, a GPU model, a framework version...
 *
 * @param key the normalized term two crashes must both have, {@code kind:value} in lower case
 *     ({@code exit:0xc0000409}, {@code lib:cudnn_ops_infer64_8.dll}, {@code cause:missing-zlibwapi})
 * @param label how the UI says it ("exit code 0xC0000409 (STATUS_STACK_BUFFER_OVERRUN)")
 * @param specific true for what is specific to the crash (codes, libraries, modules, events, the cause); false for
 *     the setting it happened in (GPU, versions, OS), which alone never makes two crashes similar
 */
public record SignatureTerm(String key, String label, boolean specific) {

    /** The most characters a key keeps (longer values are cut, never rejected). */
    public static final int MAX_KEY = 200;

    public SignatureTerm {
        key = key.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        if (key.length() > MAX_KEY) {
            key = key.substring(0, MAX_KEY);
        }
    }

    /** The kind part of the key ({@code exit} of {@code exit:0xc0000409}). */
    public String kind() {
        int colon = key.indexOf(':');
        return colon < 0 ? key : key.substring(0, colon);
    }
}
