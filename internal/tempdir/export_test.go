package tempdir

// RemoveStaleIn is RemoveStale in the directory tmp.
var RemoveStaleIn = removeStale
