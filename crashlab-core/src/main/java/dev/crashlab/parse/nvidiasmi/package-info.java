/** Parsers of {@code nvidia-smi} output: the default table, {@code -q} text, {@code -q -x} XML and query CSV. */
package dev.crashlab.parse.nvidiasmi;
