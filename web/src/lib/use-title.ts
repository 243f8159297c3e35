import { useEffect } from 'react';

const APP = 'Прибыльность WB';

/** The browser tab says where the person is (and history entries become readable). */
export function useTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP}` : APP;
  }, [title]);
}
