-- Segment search as the README sets it up, filled from the table :src (id int, body text):
-- arts, through simhash_create_segments, and sdedup, a table kept by the segment dedup
-- trigger within 12 bits (skip; definition 2's segments, the ones matched within bits) over a
-- GIN index. For the dump and upgrade tests.
SET client_min_messages = warning;
CREATE TABLE arts(id int PRIMARY KEY, body text);
INSERT INTO arts SELECT id, body FROM :src;
CALL simhash_create_segments('arts', 'body');
CREATE TABLE sdedup(id int PRIMARY KEY, body text, seg bigint[]);
CREATE INDEX sdedup_seg ON sdedup USING gin (seg);
CREATE TRIGGER sdedup BEFORE INSERT ON sdedup
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('seg', 'body', '0.5', 'skip', '{"definition": "2", "max_distance": 12}');
INSERT INTO sdedup(id, body) SELECT id, body FROM :src;
RESET client_min_messages;
