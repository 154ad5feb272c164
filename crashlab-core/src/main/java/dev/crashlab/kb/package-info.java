/**
 * The knowledge base: reading and validating the Markdown articles (file:line errors), matchers, conditions and the fact-kind registry. Plain Java.
 */
package dev.crashlab.kb;
