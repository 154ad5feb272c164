-- The cause someone confirmed for a bundle (a KB article id), with an optional note. Confirmed crashes count as
-- evidence in the diagnosis of similar crashes, and past-crash search shows them as confirmed.
CREATE TABLE bundle_resolution (
    bundle_id     BIGINT                   NOT NULL PRIMARY KEY REFERENCES bundle (id) ON DELETE CASCADE,
    article_id    VARCHAR(128)             NOT NULL,
    note          VARCHAR(2000),
    confirmed_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
