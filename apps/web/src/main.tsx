import './no-eval.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { DataProvider } from './data/DataProvider.tsx';
import './styles/index.css';
import { followTheme } from './theme/theme.ts';

followTheme();

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <DataProvider>
        <App />
      </DataProvider>
    </StrictMode>,
  );
