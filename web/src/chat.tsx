// One conversation: useChat with the stock DefaultChatTransport over /api/chat. The server loads
// the thread, so only the new message is sent. A reload re-attaches to a running turn (resume).
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, headers } from './api';
import { Message } from './message';
import type { ChatMessage } from './parts';

type Props = { threadId: string; initial: ChatMessage[]; resume: boolean; onTurnEnd: () => void };

export function Chat({ threadId, initial, resume, onTurnEnd }: Props) {
  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatMessage>({
        api: '/api/chat',
        headers: headers,
        prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
          body: { id, messages: messages.slice(-1), trigger, messageId },
        }),
      }),
    [],
  );
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse } = useChat<ChatMessage>({
    id: threadId,
    messages: initial,
    transport,
    resume,
    // A decision on every staged write of the last step goes back at once: the server applies it
    // (a person decided) and continues the turn, running an approved write before the next step.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: () => onTurnEnd(),
  });
  const busy = status === 'submitted' || status === 'streaming';
  // The harness titles an untitled thread from its first message before the stream starts, so the
  // thread list is read again once a turn streams (titles and running turns change then).
  useEffect(() => {
    if (status === 'streaming') onTurnEnd();
  }, [status, onTurnEnd]);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  const cancel = async () => {
    // The server owns the turn: ask it to cancel (the stream then ends with `abort`). A stream
    // that is not the server's (no running turn) is just closed.
    try {
      await api.cancel(threadId);
    } catch {
      stop();
    }
  };

  return (
    <div className="chat">
      <div
        className="scroll"
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        <div className="messages" aria-live="polite">
          {messages.map((m, i) => (
            <Message
              key={m.id}
              message={m}
              threadId={threadId}
              streaming={busy && i === messages.length - 1 && m.role === 'assistant'}
              onApproval={(id, approved) => addToolApprovalResponse({ id, approved })}
            />
          ))}
          {status === 'submitted' && (
            <div className="pending" aria-label="Waiting for the first chunk">
              <span className="dots"><i /><i /><i /></span>
            </div>
          )}
          {error && (
            <div className="banner" role="alert">
              {error.message}
            </div>
          )}
        </div>
      </div>
      <Composer
        busy={busy}
        onSend={(text) => {
          sendMessage({ text });
        }}
        onCancel={cancel}
      />
    </div>
  );
}

function Composer({ busy, onSend, onCancel }: { busy: boolean; onSend: (t: string) => void; onCancel: () => void }) {
  const [text, setText] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    box.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && busy) onCancel();
      if (e.key === '/' && document.activeElement?.tagName !== 'TEXTAREA' && document.activeElement?.tagName !== 'INPUT') {
        e.preventDefault();
        box.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy, onCancel]);

  const submit = () => {
    const t = text.trim();
    if (!t || busy) return;
    onSend(t);
    setText('');
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={box}
        value={text}
        rows={1}
        placeholder="Ask something…"
        title="Enter sends, Shift+Enter starts a new line, Escape stops"
        aria-label="Message"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
      />
      {busy ? (
        <button type="button" className="stop" onClick={onCancel} title="Stop (Esc)">
          Stop
        </button>
      ) : (
        <button type="submit" className="primary send" disabled={!text.trim()}>
          Send
        </button>
      )}
    </form>
  );
}
