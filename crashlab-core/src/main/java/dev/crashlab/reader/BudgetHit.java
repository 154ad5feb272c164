package dev.crashlab.reader;

/**
 * A budget that reading a bundle reached, said for a person ("read the first 200 MB of train.log").
 *
 * @param budget which budget: {@code bytes}, {@code lines}, {@code facts} or {@code time}
 * @param artifact the artifact where it was reached (later artifacts are cut too)
 * @param message what was left out, in words
 */
public record BudgetHit(String budget, String artifact, String message) {}
