// A live app reopened by its slug (/#app=<slug>): the artifact's head, rendered like the surface
// it was composed as, its queries re-executed through /api/query and re-run after a mirror sync.
import { useEffect, useState } from 'react';
import { readArtifact, type Artifact } from './live_query';
import { Surface } from './surface';

export function LiveApp({ slug }: { slug: string }) {
  const [app, setApp] = useState<Artifact | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    readArtifact(slug)
      .then((a) => setApp(a))
      .catch((e) => setProblem(`${e.code}: ${e.message}`));
  }, [slug]);
  if (problem) return <p className="surface-error" role="alert">{problem}</p>;
  if (!app) return <p>Opening {slug}…</p>;
  const data = {
    surfaceId: app.surfaceId,
    artifactId: app.id,
    version: app.version,
    kind: app.kind,
    appSlug: app.appSlug,
    program: app.body,
    live: app.live,
    state: 'persisted',
  };
  return (
    <main className="live-app" data-app={app.appSlug}>
      <Surface threadId={app.threadId} data={data} parts={[]} />
    </main>
  );
}
