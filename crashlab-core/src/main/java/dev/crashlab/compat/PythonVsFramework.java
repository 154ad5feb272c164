package dev.crashlab.compat;

import dev.crashlab.compat.CsvTable.Row;
import dev.crashlab.fact.Fact;
import dev.crashlab.kb.Versions;
import java.util.List;

/** {@code python-vs-framework}: the Python version is outside the range the framework version was released for. */
final class PythonVsFramework implements CompatCheck {

    static final String ID = "python-vs-framework";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        if (s.pythons().isEmpty()) {
            return CompatOutcome.unknown(ID, "the bundle does not name the Python version");
        }
        Observed py = s.pythons().getFirst();
        Observed tf = s.framework("tensorflow");
        Observed torch = s.framework("torch");
        Row row = null;
        Observed fw = null;
        String name = null;
        if (tf != null) {
            row = CompatLookup.tensorflowBuild(data, tf.value(), s.buildPlatform());
            if (row == null) {
                row = CompatLookup.tensorflowBuild(data, tf.value(), null);
            }
            fw = tf;
            name = "TF";
        }
        if (row == null && torch != null) {
            row = CompatLookup.torchWheel(data, torch.value(), null);
            fw = torch;
            name = "PyTorch";
        }
        if (row == null) {
            return CompatOutcome.unknown(ID, "Python " + py.value() + "; no framework version with a known Python range");
        }
        String min = row.get("python_min");
        String max = row.get("python_max");
        String pyMm = Versions.majorMinor(py.value());
        List<Fact> facts = List.of(fw.fact(), py.fact());
        String range = min + "–" + max;
        boolean below = Versions.parse(min) != null && Versions.compare(pyMm, min) < 0;
        boolean above = Versions.parse(max) != null && Versions.compare(pyMm, max) > 0;
        if (below || above) {
            return CompatOutcome.mismatch(ID, name + " " + fw.value() + " supports Python " + range + "; found Python " + py.value(), facts);
        }
        return CompatOutcome.ok(ID, name + " " + fw.value() + " supports Python " + range + "; found " + py.value(), facts);
    }
}
