/** hashV2(seed, id) vectors, shared by the server's assignment tests and the client SDK's. */

// GrowthBook packages/sdk-js/test/cases.json, "hash" table rows with version 2.
const published: Array<[string, string, number]> = [
  ['seed', 'a', 0.0505],
  ['seed', 'b', 0.2696],
  ['foo', 'ab', 0.2575],
  ['foo', 'def', 0.2019],
  ['89123klj', '8952klfjas09ujkasdf', 0.124],
  ['90850943850283058242805', '123', 0.7516],
  ['()**(%$##$%#$#', '___)((*":&', 0.0128],
];
// Same file, "feature" cases with hashVersion 2: the reported `bucket` for (seed, id).
const publishedBuckets: Array<[string, string, number]> = [
  ['feature', '123', 0.5231], // "creates experiments properly"
  ['experiment', '1', 0.4413], // "Support passthrough variations"
  ['holdout', '1', 0.8043], // "Support holdout groups"
];
// Not in GrowthBook's table (it has no non-ASCII ids). Computed with python3 implementing
// GrowthBook's hash v2 over s.encode('utf-16-le') code units; that script first reproduced all ten
// published rows above exactly.
const nonAscii: Array<[string, string, number]> = [
  ['exp_checkout', 'user-\u00fc', 0.3986],
  ['exp_checkout', '\u65e5\u672c\u8a9e\u30e6\u30fc\u30b6\u30fc', 0.0037],
  ['exp_checkout', '\u{1F600}', 0.6282],
  ['\u{1F600}', 'user_42', 0.2726],
  ['exp_01J8', 'Jos\u00e9', 0.9627],
  ['', '', 0.2305],
];

export const HASH_V2_VECTORS: Array<[string, string, number]> = [...published, ...publishedBuckets, ...nonAscii];
