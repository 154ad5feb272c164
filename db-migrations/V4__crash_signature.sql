-- What a diagnosed bundle can share with other crashes (exit code, libraries, modules, events, likely cause, GPU,
-- versions) and the text past-crash search reads, as JSON: {"terms":[{"key","label","specific"}],"text"}.
-- Null for rows written before this column existed: the search index computes those again when it is built.
ALTER TABLE bundle_diagnosis ADD COLUMN signature_json VARCHAR(65536);
