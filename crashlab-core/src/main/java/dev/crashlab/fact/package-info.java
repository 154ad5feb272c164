/**
 * The facts: the one vocabulary every parser writes and every later stage reads (sealed families of records, each with its SourceRef). Plain Java, depends on nothing.
 */
package dev.crashlab.fact;
