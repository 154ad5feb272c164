package dev.crashlab.compat;

import dev.crashlab.compat.CsvTable.Row;
import dev.crashlab.fact.Fact;
import dev.crashlab.kb.Versions;
import java.util.List;

/** {@code cudnn-vs-cuda}: the cuDNN present was built for another CUDA major (or range) than the CUDA present. */
final class CudnnVsCuda implements CompatCheck {

    static final String ID = "cudnn-vs-cuda";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        if (s.cudnnPresent().isEmpty() || s.cudaPresent().isEmpty()) {
            return CompatOutcome.unknown(ID, "the bundle does not name both the cuDNN and the CUDA present");
        }
        Observed cudnn = s.cudnnPresent().getFirst();
        Observed cuda = s.cudaPresent().getFirst();
        List<Row> rows = data.rows(CompatData.CUDNN_CUDA).stream()
                .filter(r -> Versions.within(cudnn.value(), r.get("cudnn")) || Versions.within(r.get("cudnn"), Versions.majorMinor(cudnn.value()))).toList();
        if (rows.isEmpty()) {
            return CompatOutcome.unknown(ID, "no table row for cuDNN " + cudnn.value());
        }
        List<Fact> facts = List.of(cudnn.fact(), cuda.fact());
        StringBuilder supported = new StringBuilder();
        for (Row r : rows) {
            String lo = r.get("cuda_min");
            String hi = r.get("cuda_max");
            boolean aboveMin = Versions.parse(lo) == null || Versions.compare(Versions.majorMinor(cuda.value()), Versions.majorMinor(lo)) >= 0;
            boolean belowMax = Versions.parse(hi) == null || Versions.compare(Versions.majorMinor(cuda.value()), Versions.majorMinor(hi)) <= 0;
            if (aboveMin && belowMax) {
                return CompatOutcome.ok(ID, "cuDNN " + cudnn.value() + " supports CUDA " + cuda.value(), facts);
            }
            supported.append(supported.isEmpty() ? "" : ", ").append(lo).append("–").append(hi);
        }
        return CompatOutcome.mismatch(ID, "cuDNN " + cudnn.value() + " is built for CUDA " + supported + "; found CUDA " + cuda.value(), facts);
    }
}
