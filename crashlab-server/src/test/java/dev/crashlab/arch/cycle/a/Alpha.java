package dev.crashlab.arch.cycle.a;

import dev.crashlab.arch.cycle.b.Beta;

/** Half of a deliberate package cycle: proves {@code ArchitectureTest}'s cycle rule can fail. */
public class Alpha {
    Beta beta;
}
