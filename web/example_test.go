package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
	"github.com/holomem/holomem/web"
)

// ExampleNewServer serves the JSON API with a token, the way `holomem
// serve` does after checking the listen address.
func ExampleNewServer() {
	ctx := context.Background()
	if err := web.ListenAddrAllowed("0.0.0.0:7777", ""); err != nil {
		fmt.Println("refused: a public address needs a token")
	}
	dir, _ := os.MkdirTemp("", "holomem-example")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	mem, err := retrieve.New(store, retrieve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()

	ts := httptest.NewServer(web.NewServer(mem, store, web.Options{Token: "s3cret"}))
	defer ts.Close()

	req, _ := http.NewRequest("POST", ts.URL+"/api/facts", strings.NewReader(`{"content":"Alice prefers tea"}`))
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status)

	resp, err = http.Get(ts.URL + "/api/stats")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.Status, " ", string(body))
	// Output:
	// refused: a public address needs a token
	// 201 Created
	// 401 Unauthorized {"error":"missing or wrong bearer token","code":"unauthorized"}
}
