package dev.crashlab.compat;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.kb.Versions;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tf-native-windows-gpu}: TensorFlow 2.11 or newer on native Windows with an NVIDIA GPU; 2.10 was
 * the last release with a native-Windows GPU build (tensorflow.org/install/pip, "Windows Native").
 */
final class TfNativeWindowsGpu implements CompatCheck {

    static final String ID = "tf-native-windows-gpu";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        Observed tf = s.framework("tensorflow");
        if (tf == null) {
            return CompatOutcome.unknown(ID, "no TensorFlow version in the bundle");
        }
        Observed os = s.osFamilies().isEmpty() ? null : s.osFamilies().getFirst();
        if (os == null) {
            return CompatOutcome.unknown(ID, "TF " + tf.value() + "; the bundle does not say which OS it ran on");
        }
        List<Fact> facts = new ArrayList<>(List.of(tf.fact(), os.fact()));
        if (!os.value().equals("windows")) {
            return CompatOutcome.ok(ID, "TF " + tf.value() + " on " + os.value() + " (not native Windows)", facts);
        }
        if (Versions.compare(tf.value(), "2.11") instanceof Integer c && c < 0) {
            return CompatOutcome.ok(ID, "TF " + tf.value() + " still has a native-Windows GPU build (2.10 was the last)", facts);
        }
        GpuDevice gpu = s.gpus().stream().filter(CompatLookup::isNvidia).findFirst().orElse(null);
        if (gpu == null) {
            return CompatOutcome.unknown(ID, "TF " + tf.value() + " on native Windows has no GPU build; the bundle names no NVIDIA GPU");
        }
        facts.add(gpu);
        return CompatOutcome.mismatch(ID, "TF " + tf.value() + " on native Windows cannot use the " + gpu.name()
                + ": 2.10 was the last native-Windows GPU build (use WSL2, or TF 2.10)", facts);
    }
}
