package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
)

func (a *app) forgetCmd() *cobra.Command {
	return &cobra.Command{
		Use: "forget ID...", Short: "Delete facts (and their edges)", GroupID: "facts", Args: cobra.MinimumNArgs(1),
		Long: `Deletes each fact named. Ids that name no fact are reported and the others are
still deleted; the exit code is then 3 (not found).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Every argument is checked before anything is deleted.
			ids := make([]int64, len(args))
			for i, s := range args {
				id, err := parseID(s)
				if err != nil {
					return err
				}
				ids[i] = id
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			done, missing := []int64{}, []int64{}
			for _, id := range ids {
				// A fact of another namespace is not this command's to delete.
				f, err := s.FindFactByID(cmd.Context(), id)
				if err == nil && f.Namespace != a.ns() {
					fmt.Fprintf(a.stderr, "holomem: fact %d is in namespace %q, not %q (add --namespace %s)\n", id, f.Namespace, a.ns(), f.Namespace)
					err = holomem.ErrNotFound
				}
				if err == nil {
					err = m.Forget(cmd.Context(), id)
				}
				switch {
				case errors.Is(err, holomem.ErrNotFound):
					missing = append(missing, id)
				case err != nil:
					// Report what was deleted before the failure.
					_ = a.out(map[string]any{"forgotten": done, "not_found": missing}, func(w io.Writer) { printForget(w, done, missing) })
					return fmt.Errorf("forget fact %d: %w", id, err)
				default:
					done = append(done, id)
				}
			}
			if err := a.out(map[string]any{"forgotten": done, "not_found": missing}, func(w io.Writer) { printForget(w, done, missing) }); err != nil {
				return err
			}
			if len(missing) > 0 {
				return fmt.Errorf("forget: %d of %d ids: %w", len(missing), len(ids), holomem.ErrNotFound)
			}
			return nil
		},
	}
}

func printForget(w io.Writer, done, missing []int64) {
	for _, id := range done {
		fmt.Fprintf(w, "forgot #%d\n", id)
	}
	for _, id := range missing {
		fmt.Fprintf(w, "#%d not found\n", id)
	}
}
