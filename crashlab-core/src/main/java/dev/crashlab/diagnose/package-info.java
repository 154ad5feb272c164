/**
 * The diagnosis engine (plain Java): the ordered rule pipeline that turns facts and text lines into ranked hypotheses with evidence, scoring, what to ask for next, and the diagnosis JSON.
 */
package dev.crashlab.diagnose;
