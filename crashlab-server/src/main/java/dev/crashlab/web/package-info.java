/**
 * The only package that knows HTTP: REST resources, the upload stream, size limits and routes for the collector scripts. Services below throw domain exceptions; web/problem maps them.
 */
package dev.crashlab.web;
