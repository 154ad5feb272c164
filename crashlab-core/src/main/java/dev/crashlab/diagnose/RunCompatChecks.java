package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatChecks;
import dev.crashlab.compat.SoftwareStack;

/** Reads the software stack out of the facts and runs every compatibility check over it (README "Compatibility checks"). */
final class RunCompatChecks implements Rule {

    @Override
    public String name() {
        return "run-compat-checks";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return true;
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        ctx.stack = SoftwareStack.of(ctx.input.facts());
        ctx.compat = CompatChecks.evaluate(ctx.stack, ctx.compatData);
    }
}
