/**
 * The loaded knowledge base as a Quarkus bean (KnowledgeService): articles, compat tables, the KB search index and the diagnosis engine built from them, reloaded when kb-articles change.
 */
package dev.crashlab.kb.service;
