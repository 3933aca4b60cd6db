// Tasks: a checklist whose visible actions change as it is used. Each open task has a button
// (`click__done_<n>`, n from 1 in the given order) that marks it done; a done task has none. A
// native app: no control tokens, no tool table; a wrapper or the harness frame (`--app
// views/demo/tasks_app.tsx:Tasks --app-props '{"tasks": [...]}'`) puts it into a chat format.
import { useState } from "affordance";

export interface TasksProps {
  tasks: string[];
}

export function Tasks({ tasks }: TasksProps) {
  const [done, setDone] = useState<number[]>([]);
  const open = tasks.length - done.length;
  return (
    <box>
      {`Tasks (${open} open of ${tasks.length}):\n`}
      <list>
        {tasks.map((task, i) =>
          done.includes(i) ? (
            <box key={String(i)}>{`- ${task} (done)\n`}</box>
          ) : (
            <box key={String(i)}>
              {`- ${task} `}
              <button label={`done_${i + 1}`} onClick={() => setDone((d) => (d.includes(i) ? d : [...d, i]))} />
              {"\n"}
            </box>
          ),
        )}
      </list>
    </box>
  );
}
