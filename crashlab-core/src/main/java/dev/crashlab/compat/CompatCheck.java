package dev.crashlab.compat;

/**
 * One compatibility check named in {@code kb-articles/README.md} ("Compatibility checks"): it compares
 * a bundle's software stack with the compat tables and concludes ok, mismatch or unknown.
 */
public interface CompatCheck {

    /** The id articles name ({@code cuda-vs-framework-build}). */
    String id();

    /** Evaluates the check; never throws for missing data (that is {@code unknown}). */
    CompatOutcome evaluate(SoftwareStack stack, CompatData data);
}
