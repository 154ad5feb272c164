/** The stored facts of each artifact (the artifact_facts rows), written once by background reading. */
package dev.crashlab.reader.service;
