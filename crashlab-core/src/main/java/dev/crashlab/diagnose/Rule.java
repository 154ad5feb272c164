package dev.crashlab.diagnose;

/** One step of the diagnosis pipeline: a predicate saying whether it applies, and the action it takes. */
interface Rule {

    /** A short name for notes and the log. */
    String name();

    /** Tells whether the rule has anything to do for this bundle. */
    boolean applies(DiagnosisContext ctx);

    /** Does it; may throw, which the pipeline turns into a note. */
    void apply(DiagnosisContext ctx);
}
