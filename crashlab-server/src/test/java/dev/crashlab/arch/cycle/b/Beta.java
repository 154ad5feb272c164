package dev.crashlab.arch.cycle.b;

import dev.crashlab.arch.cycle.a.Alpha;

/** The other half of the deliberate cycle (see {@link Alpha}). */
public class Beta {
    Alpha alpha;
}
