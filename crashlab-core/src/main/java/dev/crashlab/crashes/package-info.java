/**
 * Past crashes, plain Java part: crash signatures (the specific terms a crash is known by), the Lucene past-crash index (search, similar crashes) and confirmed crashes as evidence. Sits above the diagnosis: it reads diagnoses, the diagnosis never calls it.
 */
package dev.crashlab.crashes;
