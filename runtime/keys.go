package runtime

import "strings"

// HashTag returns the part of key that Redis Cluster hashes: the text between the first "{"
// and the first "}" after it when that text is not empty, else the whole key.
func HashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// SideKey names a key that lives beside the board key in the same hash slot, so that a
// script may declare both on Redis Cluster: key + ":" + suffix when key has a hash tag, else
// "{" + key + "}:" + suffix (its tag is then the whole board key, which hashes like the key
// itself). A key without a tag that contains "}" cannot be wrapped; its side key is then
// key + ":" + suffix, and on a Cluster the scripts fail loudly with CROSSSLOT (give such a key
// a hash tag).
func SideKey(key, suffix string) string {
	if HashTag(key) != key || strings.IndexByte(key, '}') >= 0 {
		return key + ":" + suffix
	}
	return "{" + key + "}:" + suffix
}

// IndexKey is the board's index (a HASH id → member, plus the layout fingerprint under the
// empty field), kept when members carry a field prefix.
func IndexKey(key string) string { return SideKey(key, "idx") }

// MetaKey holds the layout fingerprint of a board whose members are bare ids.
func MetaKey(key string) string { return SideKey(key, "meta") }
