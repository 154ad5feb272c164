import { useEffect, useState, type FormEvent } from 'react';
import { navigate } from '../router.tsx';

/**
 * A search box that puts the query in the URL (`path?q=...`, or `path` alone when cleared), so results survive a
 * reload and the back button; the page reads `q` from the URL and searches.
 */
export function SearchForm({ q, path, id, label, placeholder, testId }: {
  q: string;
  path: string;
  id: string;
  label: string;
  placeholder: string;
  testId: string;
}) {
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);
  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const next = draft.trim();
    navigate(next ? `${path}?q=${encodeURIComponent(next)}` : path);
  }
  return (
    <form className="kb-search" role="search" onSubmit={onSubmit}>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        type="search"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        placeholder={placeholder}
        data-testid={testId}
        maxLength={500}
      />
      <button type="submit" className="btn btn-primary">
        Search
      </button>
    </form>
  );
}
