package dev.crashlab.kb;

/**
 * One entry of a matcher's {@code where:}: a dotted field path and the condition its values must meet.
 *
 * @param field the field path ({@code library}, {@code data.AppName})
 * @param condition what its values must satisfy
 */
public record FieldCondition(String field, Condition condition) {}
