/**
 * Parsers: one per artifact format (sub-packages per family) turning bytes into facts and parse problems, never throwing on bad input; Parsers is the registry. Plain Java.
 */
package dev.crashlab.parse;
