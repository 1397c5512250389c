package retrieve_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestMemory_Status(t *testing.T) {
	t.Run("NoModel", func(t *testing.T) {
		m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
		f := remember(t, m, "we deploy nginx with Ansible")
		st, err := m.Status(t.Context(), holomem.DefaultNamespace)
		if err != nil {
			t.Fatal(err)
		}
		want := []holomem.Channel{holomem.ChannelFTS, holomem.ChannelJaccard, holomem.ChannelHRR}
		if !slices.Equal(st.Channels, want) || st.Model != "" || st.Index != nil || st.Stats.Facts != 1 || st.Weights[holomem.ChannelSemantic] != 0 {
			t.Errorf("status = %+v", st)
		}
		if len(st.Notes) == 0 || !strings.Contains(st.Notes[0], "no embedding model") {
			t.Errorf("notes = %q", st.Notes)
		}
		// Status runs no query: the fact's retrieval count is untouched.
		if got, err := m.Store().FindFactByID(t.Context(), f.ID); err != nil || got.RetrievalCount != 0 {
			t.Errorf("retrieval count = %d, %v", got.RetrievalCount, err)
		}
	})
	t.Run("Model", func(t *testing.T) {
		emb := testutil.MustTinyEmbedder(t)
		m, _ := testutil.MustOpenMemory(t, retrieve.Options{Embedder: emb})
		remember(t, m, "we deploy nginx with Ansible")
		st, err := m.Status(t.Context(), holomem.DefaultNamespace)
		if err != nil {
			t.Fatal(err)
		}
		if st.Model != emb.ModelID() || !slices.Contains(st.Channels, holomem.ChannelSemantic) || st.Weights[holomem.ChannelSemantic] == 0 {
			t.Errorf("status = %+v", st)
		}
		if st.Index == nil || st.Index.Mode != holomem.IndexExact || st.Index.Vectors != 1 {
			t.Errorf("index = %+v", st.Index)
		}
	})
}
