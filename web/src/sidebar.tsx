// The thread list: open, create, rename (double-click or F2), delete. Every item is a button.
import { useState } from 'react';
import type { Thread } from './api';
import { visible } from './visible';

type Props = {
  threads: Thread[];
  current: string | null;
  onOpen: (id: string) => void;
  onCreate: () => void;
  onRename: (id: string, title: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
};

function when(ms: number): string {
  const d = new Date(ms);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

export function Sidebar({ threads, current, onOpen, onCreate, onRename, onDelete }: Props) {
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState('');

  const commit = async (id: string) => {
    const title = draft.trim();
    setEditing(null);
    if (title) await onRename(id, title);
  };

  return (
    <nav className="sidebar" aria-label="Threads">
      <div className="brand">
        <span className="logo" aria-hidden>◆</span> affordance
      </div>
      <button className="new-thread" onClick={onCreate}>
        + New conversation
      </button>
      <ul className="threads">
        {threads.map((t) => (
          <li key={t.id} className={t.id === current ? 'selected' : ''}>
            {editing === t.id ? (
              <input
                className="rename"
                autoFocus
                value={draft}
                aria-label="Thread title"
                onChange={(e) => setDraft(e.target.value)}
                onBlur={() => commit(t.id)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') commit(t.id);
                  if (e.key === 'Escape') setEditing(null);
                }}
              />
            ) : (
              <button
                className="thread"
                onClick={() => onOpen(t.id)}
                onDoubleClick={() => {
                  setEditing(t.id);
                  setDraft(t.title);
                }}
                onKeyDown={(e) => {
                  if (e.key === 'F2') {
                    setEditing(t.id);
                    setDraft(t.title);
                  }
                }}
              >
                <span className="thread-title">
                  {t.active && <span className="live-dot" aria-label="running" />}
                  {visible(t.title) || 'New conversation'}
                </span>
                <span className="thread-meta">{when(t.updatedAt)}</span>
              </button>
            )}
            <button
              className="icon-button delete"
              aria-label={`Delete ${visible(t.title) || 'New conversation'}`}
              title="Delete"
              onClick={() => {
                if (confirm(`Delete “${t.title}”?`)) onDelete(t.id);
              }}
            >
              ×
            </button>
          </li>
        ))}
        {threads.length === 0 && <li className="none">No conversations yet.</li>}
      </ul>
    </nav>
  );
}
