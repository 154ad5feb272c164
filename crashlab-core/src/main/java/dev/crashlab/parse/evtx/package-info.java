/**
 * The binary Windows event log reader: one type per on-disk structure (file header, chunk, record, BinXML
 * token, string and template caches), every read labelled, problems per record.
 */
package dev.crashlab.parse.evtx;
