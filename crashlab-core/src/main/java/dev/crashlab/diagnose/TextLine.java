package dev.crashlab.diagnose;

/**
 * One line of a bundle's text artifacts, for {@code text:} matchers and the text similarity.
 *
 * @param artifact the artifact's path in the bundle
 * @param line the 1-based line number
 * @param text the line
 */
public record TextLine(String artifact, long line, String text) {}
