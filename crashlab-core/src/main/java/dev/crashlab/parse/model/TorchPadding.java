package dev.crashlab.parse.model;

import java.util.Collections;
import java.util.List;

/** Reads PyTorch's {@code padding} argument: an int, a per-dimension tuple, or {@code 'same'} / {@code 'valid'}. */
final class TorchPadding {

    private TorchPadding() {}

    /** Sets {@code padding} and {@code explicitPadding} of {@code d} from the argument's source text (null: absent). */
    static void apply(ConvDraft d, String arg) {
        if (arg == null) {
            d.padding = "explicit";
            d.explicitPadding = Collections.nCopies(d.rank, 0);
            return;
        }
        String word = PythonCall.stringOf(arg);
        if ("same".equals(word) || "valid".equals(word)) {
            d.padding = word;
            return;
        }
        List<Integer> p = PythonCall.intsOf(arg, d.rank);
        if (p != null) {
            d.padding = "explicit";
            d.explicitPadding = p;
        }
    }
}
