/**
 * Text search (plain Java): the log analyzer (tokenizer and filters), the KB article index with snippets and similarity, and the BM25 baseline used by eval.
 */
package dev.crashlab.search;
