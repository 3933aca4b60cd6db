// The web UI: a thread list and one conversation (useChat over our UI message stream).
import { useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, startSession, type Thread } from './api';
import { Chat } from './chat';
import { LiveApp } from './live_app';
import type { ChatMessage } from './parts';
import { Sidebar } from './sidebar';

type Loaded = { id: string; messages: ChatMessage[]; active: boolean };

function App() {
  const [threads, setThreads] = useState<Thread[]>([]);
  const [current, setCurrent] = useState<Loaded | null>(null);
  const [drawer, setDrawer] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const refresh = useCallback(() => api.threads().then(setThreads).catch((e) => setProblem(e.message)), []);

  const open = useCallback(async (id: string) => {
    try {
      const r = await api.read(id);
      setCurrent({ id, messages: r.messages, active: r.thread.active });
      history.replaceState(null, '', `#thread=${encodeURIComponent(id)}`);
      setDrawer(false);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  }, []);

  const create = useCallback(async () => {
    const t = await api.create();
    setCurrent({ id: t.id, messages: [], active: false });
    history.replaceState(null, '', `#thread=${encodeURIComponent(t.id)}`);
    setDrawer(false);
    refresh();
  }, [refresh]);

  useEffect(() => {
    refresh();
    const wanted = new URLSearchParams(location.hash.slice(1)).get('thread');
    if (wanted) open(wanted);
  }, [refresh, open]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key === 'k') {
        e.preventDefault();
        create();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [create]);

  return (
    <div className={`app ${drawer ? 'drawer-open' : ''}`}>
      <Sidebar
        threads={threads}
        current={current?.id ?? null}
        onOpen={open}
        onCreate={create}
        onRename={async (id, title) => {
          await api.rename(id, title);
          refresh();
        }}
        onDelete={async (id) => {
          await api.remove(id).catch((e) => setProblem(e.message));
          if (current?.id === id) setCurrent(null);
          refresh();
        }}
      />
      <div className="scrim" onClick={() => setDrawer(false)} />
      <main className="main">
        <header className="topbar">
          <button className="icon-button menu" aria-label="Threads" onClick={() => setDrawer(true)}>
            ☰
          </button>
          <span className="topbar-title">{current ? threads.find((t) => t.id === current.id)?.title || 'New conversation' : 'affordance'}</span>
        </header>
        {problem && (
          <div className="banner" role="alert" onClick={() => setProblem(null)}>
            {problem}
          </div>
        )}
        {current ? (
          <Chat key={current.id} threadId={current.id} initial={current.messages} resume={current.active} onTurnEnd={refresh} />
        ) : (
          <div className="empty">
            <h1>affordance</h1>
            <p>Ask about your data. Answers show where every fact came from and how fresh it is.</p>
            <button className="primary" onClick={create}>
              New conversation <kbd>Ctrl K</kbd>
            </button>
          </div>
        )}
      </main>
    </div>
  );
}

// The person's session first (a sign-in code in the address is taken out of it), then the UI.
// /#app=<slug> reopens a live app on its own (live_app.tsx).
startSession().finally(() => {
  const appSlug = new URLSearchParams(location.hash.slice(1)).get('app');
  createRoot(document.getElementById('root')!).render(appSlug ? <LiveApp slug={appSlug} /> : <App />);
});
