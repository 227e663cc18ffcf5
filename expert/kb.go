package expert

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/gompi/gompi/expert/lang"
)

// The knowledge base: rule files in the rule language, shipped inside the
// binary and readable by users (goexpert rules list --source).
//
//go:embed kb/*.rules
var kbFiles embed.FS

// KnowledgeBase gives the shipped rule files by name, in load order.
func KnowledgeBase() (names []string, sources map[string]string) {
	entries, _ := fs.ReadDir(kbFiles, "kb")
	sources = map[string]string{}
	for _, e := range entries {
		b, _ := kbFiles.ReadFile("kb/" + e.Name())
		names = append(names, "kb/"+e.Name())
		sources["kb/"+e.Name()] = string(b)
	}
	sort.Strings(names)
	return names, sources
}

// LoadRules parses and checks the knowledge base (unless noKB) followed by
// the user's rule files, which may use the knowledge base's event types.
func LoadRules(noKB bool, userFiles ...string) (*lang.Rules, error) {
	var files []*lang.File
	if !noKB {
		names, src := KnowledgeBase()
		for _, n := range names {
			f, err := lang.Parse(n, src[n])
			if err != nil {
				return nil, fmt.Errorf("the shipped knowledge base is broken: %w", err)
			}
			files = append(files, f)
		}
	}
	for _, path := range userFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		f, err := lang.Parse(path, string(b))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return lang.Check(files...)
}
