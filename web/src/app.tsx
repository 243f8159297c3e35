import type { ReactNode } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { api } from './api/client';
import { pluralRows } from './api/errors';
import { AuthProvider, useAuth } from './lib/auth';
import { UploadTray, UploadsProvider } from './lib/uploads';
import { AnalyticsPage } from './pages/analytics-page';
import { ConfirmPage } from './pages/confirm-page';
import { ForgotPasswordPage } from './pages/forgot-password-page';
import { LoginPage } from './pages/login-page';
import { PnlPage } from './pages/pnl-page';
import { CashFlowPage } from './pages/cash-flow-page';
import { ProductsPage } from './pages/products-page';
import { OwnCostsPage } from './pages/own-costs-page';
import { RegisterPage } from './pages/register-page';
import { ReportPage } from './pages/report-page';
import { ReportsPage } from './pages/reports-page';
import { SettingsPage } from './pages/settings-page';
import { UnitEconomicsPage } from './pages/unit-economics-page';

export function App() {
  return (
    <AuthProvider>
      <UploadsProvider>
        <Routes>
          <Route
            path="/login"
            element={
              <GuestOnly>
                <LoginPage />
              </GuestOnly>
            }
          />
          <Route
            path="/register"
            element={
              <GuestOnly>
                <RegisterPage />
              </GuestOnly>
            }
          />
          <Route
            path="/forgot-password"
            element={
              <GuestOnly>
                <ForgotPasswordPage />
              </GuestOnly>
            }
          />
          {/* The mailed link works whether or not someone is signed in on this browser. */}
          <Route path="/confirm" element={<ConfirmPage />} />
          <Route
            path="/reports"
            element={
              <SignedIn>
                <ReportsPage />
              </SignedIn>
            }
          />
          <Route
            path="/reports/:id"
            element={
              <SignedIn>
                <ReportPage />
              </SignedIn>
            }
          />
          <Route
            path="/analytics"
            element={
              <SignedIn>
                <AnalyticsPage />
              </SignedIn>
            }
          />
          <Route
            path="/pnl"
            element={
              <SignedIn>
                <PnlPage />
              </SignedIn>
            }
          />
          <Route
            path="/cash-flow"
            element={
              <SignedIn>
                <CashFlowPage />
              </SignedIn>
            }
          />
          <Route
            path="/products"
            element={
              <SignedIn>
                <ProductsPage />
              </SignedIn>
            }
          />
          <Route
            path="/own-costs"
            element={
              <SignedIn>
                <OwnCostsPage />
              </SignedIn>
            }
          />
          <Route
            path="/articles/:article/unit-economics"
            element={
              <SignedIn>
                <UnitEconomicsPage />
              </SignedIn>
            }
          />
          <Route
            path="/settings"
            element={
              <SignedIn>
                <SettingsPage />
              </SignedIn>
            }
          />
          <Route
            path="/"
            element={
              <SignedIn>
                <Landing />
              </SignedIn>
            }
          />
          <Route
            path="*"
            element={
              <SignedIn>
                <NotFound />
              </SignedIn>
            }
          />
        </Routes>
      </UploadsProvider>
    </AuthProvider>
  );
}

function GuestOnly({ children }: { children: ReactNode }) {
  const { token } = useAuth();
  if (token) return <Navigate to="/" replace />;
  return <div className="guest-layout">{children}</div>;
}

function SignedIn({ children }: { children: ReactNode }) {
  const { token } = useAuth();
  const location = useLocation();
  if (!token) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <Shell>{children}</Shell>;
}

function Shell({ children }: { children: ReactNode }) {
  const { email, signOut } = useAuth();
  const me = useQuery({ queryKey: ['me'], queryFn: api.me });
  const limits = me.data?.user.limits;
  return (
    <div className="shell">
      <header className="topbar">
        <div className="topbar-inner">
          <NavLink to="/" className="brand" end>
            <span className="brand-mark" aria-hidden="true" />
            Прибыльность WB
          </NavLink>
          <nav className="nav" aria-label="Разделы">
            <NavLink to="/reports">Отчёты</NavLink>
            <NavLink to="/analytics">Аналитика</NavLink>
            <NavLink to="/pnl">P&amp;L</NavLink>
            <NavLink to="/products">Себестоимость</NavLink>
            <NavLink to="/own-costs">Свои расходы</NavLink>
            {/* After «Свои расходы»: the phone's first row of links stays as it was. */}
            <NavLink to="/cash-flow">Деньги</NavLink>
            <NavLink to="/settings">Настройки</NavLink>
          </nav>
          <div className="topbar-user">
            {typeof limits === 'number' ? (
              <NavLink to="/settings" className="limits-chip" data-testid="limits-chip" title="Остаток лимита строк">
                {pluralRows(limits)}
              </NavLink>
            ) : null}
            <span className="user-email" data-testid="user-email">
              {email}
            </span>
            <button type="button" className="btn btn-ghost btn-small" onClick={signOut}>
              Выйти
            </button>
          </div>
        </div>
      </header>
      <main className="content">{children}</main>
      <UploadTray />
    </div>
  );
}

/** The landing page: analytics once the seller has two or more reports, else the reports page (upload first). */
function Landing() {
  const reports = useQuery({ queryKey: ['reports', 'landing'], queryFn: () => api.listReports({}) });
  if (reports.isPending) return null;
  const many = (reports.data?.items.length ?? 0) >= 2;
  return <Navigate to={many ? '/analytics' : '/reports'} replace />;
}

function NotFound() {
  return (
    <div className="panel empty-state">
      <h1>Страница не найдена</h1>
      <p>
        <NavLink to="/reports">К списку отчётов</NavLink>
      </p>
    </div>
  );
}
