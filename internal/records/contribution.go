package records

// Contribution is what one file says about entities (entity.Contribute makes it, entity.Aggregate
// combines them). It is plain data (gob and JSON round-trip it) so the engine can cache it with the file.
type Contribution struct {
	Path  string `json:"path"`
	Terms []Term `json:"terms,omitempty"` // sorted by Words
	Names int    `json:"names,omitempty"` // distinct identifiers defined or referenced
	Plain int    `json:"plain,omitempty"` // of those, the ones without a meaningful word (a, b, x1)
	Test  bool   `json:"test,omitempty"`  // a test, fixture or example file: not the product's own code
	Util  bool   `json:"util,omitempty"`  // under a util/helper/common folder
	Infra bool   `json:"infra,omitempty"` // under a deployment/database/config folder
}

// Term is one single word or compound (two or three words) and where the file shows it.
type Term struct {
	Words    string `json:"words"`              // stemmed words joined by a space: "rule", "quality profile"
	Count    int    `json:"count"`              // mentions in the path and identifiers
	Named    bool   `json:"named,omitempty"`    // in the name of something defined here (function, field, type...)
	TypeName bool   `json:"typeName,omitempty"` // in the name of a class/struct/interface/enum/trait/type defined here
	Defines  bool   `json:"defines,omitempty"`  // a type named after exactly this is defined here (Rule, QualityProfileDto)
	Folder   bool   `json:"folder,omitempty"`   // in a folder name of the path
	// FolderName: a folder of the path is named by exactly this (pkg/cmd/release/, quality_profile/)
	FolderName bool `json:"folderName,omitempty"`
	FileName   bool `json:"fileName,omitempty"` // in the file name
}
