package text_test

import (
	"fmt"

	"github.com/holomem/holomem/text"
)

func ExampleTokens() {
	fmt.Printf("%q\n", text.Tokens("Ёлка: deploy_v2 (C++) 中文字符!"))
	// Output: ["елка" "deploy" "v2" "c" "中文字符"]
}

func ExampleIndexText() {
	fmt.Println(text.IndexText("Nginx deployed in России"))
	// Output: nginx deployed in россии deploy росс
}

func ExampleMatchAll() {
	fmt.Println(text.MatchAll(`deploying nginx -rf "NEAR(`))
	// Output: ("deploying" OR "deploy") AND "nginx" AND "rf" AND "near"
}

func ExampleEntities() {
	for _, e := range text.Entities(`Alice aka Al fixed #42 in store/sqlite.go via CreateFact, see "blue-green".`) {
		fmt.Println(e.Kind, e.Name, e.Aliases)
	}
	// Output:
	// alias Alice [Al]
	// issue #42 []
	// path store/sqlite.go []
	// identifier CreateFact []
	// quoted blue-green []
}

func ExampleJaccard() {
	fmt.Printf("%.2f\n", text.Jaccard(text.Tokens("deploy nginx now"), text.Tokens("nginx deploy later")))
	// Output: 0.50
}
